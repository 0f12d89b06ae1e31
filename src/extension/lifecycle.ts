import type * as vscode from 'vscode';

/** Base for anything that owns registrations: they all go through register() and die with it. */
export abstract class Disposable implements vscode.Disposable {
	private disposed = false;
	private readonly disposables: vscode.Disposable[] = [];

	dispose(): void {
		if (this.disposed) {
			return;
		}
		this.disposed = true;
		for (const d of this.disposables.splice(0).reverse()) {
			try {
				d.dispose();
			} catch {
				// One failing disposal must not keep the rest alive.
			}
		}
	}

	protected get isDisposed(): boolean {
		return this.disposed;
	}

	protected register<T extends vscode.Disposable>(value: T): T {
		if (this.disposed) {
			value.dispose();
		} else {
			this.disposables.push(value);
		}
		return value;
	}
}
