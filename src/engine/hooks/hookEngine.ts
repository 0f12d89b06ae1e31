/**
 * The parts of the engine the hook runtime drives. `engine.ts` is the composition root above every
 * room, the hooks included, so the hooks name only the services they use; an `Engine` has them all,
 * and callers pass it as it is.
 */
import type { BoardService } from '../board/boardService';
import type { EngineContext } from '../context';
import type { BriefingService } from '../sessions/briefingService';
import type { SessionService } from '../sessions/sessionService';
import type { JournalStore } from '../storage/journalStore';
import type { TaskService } from '../tasks/taskService';
import type { TrackerService } from '../trackers/trackerService';

export interface HookEngine {
	readonly ctx: EngineContext;
	readonly store: JournalStore;
	readonly sessions: SessionService;
	readonly briefings: BriefingService;
	readonly tasks: TaskService;
	readonly trackers: TrackerService;
	/** The Agents board the hooks tell what each session waits on (optional: hosts built before it record nothing there). */
	readonly board?: BoardService;
}
