/**
 * The protocol may not import the engine (nor the engine the protocol), so the wire shapes are
 * declared in src/protocol/dto.ts. This test keeps them identical to the engine's drizzle-derived
 * zod schemas: a column added to the schema fails here until the protocol carries it too.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import * as engineShapes from '../../../src/engine/storage/jsonShapes';
import * as model from '../../../src/engine/storage/model';
import * as checkpointDtos from '../../../src/protocol/checkpointDto';
import * as dto from '../../../src/protocol/dto';

const schemaOf = (s: z.ZodType) => z.toJSONSchema(s, { unrepresentable: 'any', io: 'output' }) as { properties?: Record<string, unknown>; required?: string[] };

void describe('checkpoint wire shapes match the engine’s schema', () => {
	void it('file stats: identical JSON schema', () => {
		assert.deepEqual(schemaOf(checkpointDtos.fileStatsDto), schemaOf(engineShapes.fileStatsSchema));
	});

	void it('checkpoint: the same fields but the environment snapshot (comparisons carry its diff)', () => {
		const e = schemaOf(model.checkpointSchema);
		const w = schemaOf(checkpointDtos.checkpointDto);
		const engineKeys = Object.keys(e.properties ?? {}).filter((k) => k !== 'environment');
		assert.deepEqual(Object.keys(w.properties ?? {}).sort(), engineKeys.sort());
		assert.deepEqual([...(w.required ?? [])].sort(), (e.required ?? []).filter((k) => k !== 'environment').sort());
		for (const key of engineKeys) {
			assert.deepEqual((w.properties ?? {})[key], (e.properties ?? {})[key], `checkpoint.${key}`);
		}
	});
});

void describe('issue links: the stored row less its timestamps', () => {
	void it('the same fields, required and nullable alike', () => {
		const engine = model.issueLinkSchema.omit({ createdAt: true, updatedAt: true });
		const e = schemaOf(engine);
		const w = schemaOf(dto.issueLinkDto);
		assert.deepEqual(Object.keys(w.properties ?? {}).sort(), Object.keys(e.properties ?? {}).sort());
		assert.deepEqual([...(w.required ?? [])].sort(), [...(e.required ?? [])].sort());
		for (const key of Object.keys(e.properties ?? {})) {
			assert.equal(dto.issueLinkDto.shape[key as keyof typeof dto.issueLinkDto.shape].safeParse(null).success, engine.shape[key as keyof typeof engine.shape].safeParse(null).success, `issueLink.${key} nullability`);
		}
	});
});

void describe('wire shapes match the engine’s schema', () => {
	for (const [name, engine, wire] of [
		['scope', engineShapes.sessionScopeSchema, dto.sessionScopeDto],
		['stats', engineShapes.sessionStatsSchema, dto.sessionStatsDto],
		['handoff', engineShapes.handoffDataSchema, dto.handoffDto],
		['git state', engineShapes.gitStateSchema, dto.gitStateDto],
		['debrief', engineShapes.debriefDataSchema, dto.debriefDto],
		['briefing', engineShapes.briefingSchema, dto.briefingDto],
		['session summary', engineShapes.sessionSummarySchema, dto.sessionSummaryDto],
	] as const) {
		void it(`${name}: identical JSON schema`, () => {
			assert.deepEqual(schemaOf(wire), schemaOf(engine));
		});
	}

	for (const [name, engine, wire, extra] of [
		['session', model.sessionSchema, dto.sessionDto, []],
		['task', model.taskSchema, dto.taskDto, ['dependsOn']],
		['decision', model.decisionSchema, dto.decisionDto, []],
	] as const) {
		void it(`${name}: the same fields, required and nullable alike`, () => {
			const e = schemaOf(engine);
			const w = schemaOf(wire);
			assert.deepEqual(Object.keys(w.properties ?? {}).sort(), [...Object.keys(e.properties ?? {}), ...extra].sort());
			assert.deepEqual([...(w.required ?? [])].sort(), [...(e.required ?? []), ...extra].sort());
			for (const key of Object.keys(e.properties ?? {})) {
				const nullable = (s: z.ZodType) => ((s as z.ZodObject<z.ZodRawShape>).shape[key] as z.ZodType | undefined)?.safeParse(null).success;
				assert.equal(nullable(wire), nullable(engine), `${name}.${key} nullability`);
			}
		});
	}
});
