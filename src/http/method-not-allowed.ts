// Tells "no such path" (404) from "path exists, method does not" (405 with Allow) by keeping a
// second router with every registered route.
import FindMyWay from 'find-my-way';
import type { HTTPMethod } from 'find-my-way';
import type { FastifyInstance } from 'fastify';

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export interface RouteCatalogue {
  allowedMethods(method: string, url: string): string[];
}

export function trackRoutes(app: FastifyInstance): RouteCatalogue {
  const router = FindMyWay({ ignoreTrailingSlash: false });
  const noop = () => {};
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      const method = m.toUpperCase() as HTTPMethod;
      if (!METHODS.includes(method)) continue;
      if (!router.hasRoute(method, route.url)) router.on(method, route.url, noop);
    }
  });
  return {
    allowedMethods(method, url) {
      const path = url.split('?')[0];
      return METHODS.filter((m) => m !== method.toUpperCase() && router.find(m, path) !== null);
    },
  };
}
