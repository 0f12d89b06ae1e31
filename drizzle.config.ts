import { defineConfig } from 'drizzle-kit';

export default defineConfig({
	dialect: 'sqlite',
	schema: './src/engine/storage/schema.ts',
	out: './drizzle',
});
