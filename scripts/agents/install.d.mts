/** Types of install.mjs: the cache dir of the real agent CLIs, and their install (idempotent). */
export const agentsHome: string;
export const agentBins: Record<'claude' | 'copilot' | 'codex' | 'gemini', string>;
export function install(options?: { quiet?: boolean }): string;
