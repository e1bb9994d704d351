import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `npm run dev:web` serves the app with hot reload and forwards the API to a running service
// (AGENTRY_URL, default http://localhost:8080), so cookies and CSRF work as on one origin.
const service = process.env.AGENTRY_URL ?? 'http://localhost:8080';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    assetsDir: 'assets',
    // The content security policy allows no inline script, so the preload helper must not be inlined either.
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: {
      '/v1': { target: service },
      '/openapi.json': { target: service },
    },
  },
});
