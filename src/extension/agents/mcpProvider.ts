/**
 * Baton's MCP server for VS Code's own agents (Copilot agent mode), with no configuration file: a
 * definition provider (`baton.mcp`, declared under `contributes.mcpServerDefinitionProviders`) that
 * returns `baton mcp --workspace <folder>` for the folder Baton serves. The API exists from VS Code
 * 1.101; Baton supports 1.95, whose types lack it, so the slice used is declared here and the
 * registration is feature-detected: an older editor simply gets no provider.
 */
import * as vscode from 'vscode';
import { mcpDefinition } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { mcpProviderId } from '../ids';
import { Disposable } from '../lifecycle';

/** `vscode.McpStdioServerDefinition` (VS Code ≥ 1.101). */
interface McpStdioDefinition {
	readonly label: string;
	command: string;
	args: string[];
	env: Record<string, string | number | null>;
	version?: string;
	cwd?: vscode.Uri;
}

type McpStdioDefinitionClass = new (
	label: string,
	command: string,
	args?: string[],
	env?: Record<string, string | number | null>,
	version?: string,
) => McpStdioDefinition;

interface McpDefinitionProvider {
	onDidChangeMcpServerDefinitions?: vscode.Event<void>;
	provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<McpStdioDefinition[]>;
}

interface McpLmApi {
	registerMcpServerDefinitionProvider(id: string, provider: McpDefinitionProvider): vscode.Disposable;
}

export class BatonMcpProvider extends Disposable implements McpDefinitionProvider {
	/** True when this editor has the API and VS Code accepted the provider. */
	readonly registered: boolean;
	/** How often the definitions were asked for (by VS Code or a test). */
	provided = 0;
	private readonly changeEmitter = this.register(new vscode.EventEmitter<void>());
	readonly onDidChangeMcpServerDefinitions = this.changeEmitter.event;
	private readonly definitionClass: McpStdioDefinitionClass | undefined;
	private lastRoot: string | undefined;

	constructor(
		private readonly workspace: BatonWorkspace,
		private readonly version: string,
	) {
		super();
		const lm = vscode.lm as unknown as Partial<McpLmApi> | undefined;
		this.definitionClass = (vscode as unknown as { McpStdioServerDefinition?: McpStdioDefinitionClass }).McpStdioServerDefinition;
		let registered = false;
		if (typeof lm?.registerMcpServerDefinitionProvider === 'function' && this.definitionClass) {
			try {
				this.register(lm.registerMcpServerDefinitionProvider(mcpProviderId, this));
				registered = true;
			} catch (error) {
				workspace.log.warn(`could not offer Baton's MCP server to VS Code: ${(error as Error).message}`);
			}
		}
		this.registered = registered;
		// The served folder follows the active editor: VS Code asks again when it changes.
		this.register(
			workspace.onDidChangeStatus(() => {
				if (this.lastRoot !== undefined && workspace.root !== this.lastRoot) {
					this.changeEmitter.fire();
				}
			}),
		);
		this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.changeEmitter.fire()));
	}

	async provideMcpServerDefinitions(token?: vscode.CancellationToken): Promise<McpStdioDefinition[]> {
		this.provided++;
		const root = this.workspace.root;
		this.lastRoot = root;
		// Baton's tools write sessions and checkpoints into the folder: none for an untrusted one.
		if (!root || !this.definitionClass || !vscode.workspace.isTrusted) {
			return [];
		}
		try {
			const launch = await this.workspace.request(mcpDefinition, undefined, token);
			const multiRoot = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
			const definition = new this.definitionClass(
				multiRoot ? `Baton (${vscode.workspace.getWorkspaceFolder(vscode.Uri.file(root))?.name ?? root})` : 'Baton',
				launch.command,
				launch.args,
				launch.env,
				this.version,
			);
			definition.cwd = vscode.Uri.file(launch.cwd);
			return [definition];
		} catch (error) {
			this.workspace.log.warn(`Baton's MCP server cannot be offered: ${(error as Error).message}`);
			return [];
		}
	}
}
