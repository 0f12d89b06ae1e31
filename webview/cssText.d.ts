/** esbuild's `.css: 'text'` loader: importing a stylesheet gives its text, injected with the page's nonce. */
declare module '*.css' {
	const text: string;
	export default text;
}
