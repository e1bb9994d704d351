import type { FastifyInstance, FastifySchema } from 'fastify';
import type { AuthMode } from './auth.ts';

/** One registered route as the service declared it: what the authorization sweep and the fuzz tests walk. */
export interface RouteEntry {
  method: string;
  url: string;
  /** The declared mode; routes outside /v1 (health, docs) may declare none and count as 'none'. */
  auth: AuthMode;
  schema: FastifySchema | undefined;
}

/** Records every route registered after this call, HEAD routes Fastify adds for GETs excluded. */
export function recordRoutes(app: FastifyInstance): readonly RouteEntry[] {
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      if (method === 'HEAD') continue;
      routes.push({ method, url: route.url, auth: route.config?.auth ?? 'none', schema: route.schema });
    }
  });
  return routes;
}
