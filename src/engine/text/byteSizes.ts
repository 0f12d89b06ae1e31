/** A size as a person reads it: `1.5 MB`, `12 KB`, `300 bytes` (binary units, at most one decimal). */
export function formatBytes(bytes: number): string {
	return bytes >= 1024 * 1024 ? `${+(bytes / 1024 / 1024).toFixed(1)} MB` : bytes >= 1024 ? `${+(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`;
}
