import type { RouteOptions } from 'fastify';

/**
 * DESIGN §4: wherever PATCH is a route's canonical method, PUT and POST are accepted too, and POST
 * wherever PUT is (clients of the original service may use any of them). An `onRoute` hook of the
 * API's scope, so each route states its canonical method alone; the OpenAPI document lists the
 * aliases after it (`withUniqueOperationIds`).
 */
export function acceptMethodAliases(route: RouteOptions): void {
  if (route.method === 'PATCH') route.method = ['PATCH', 'PUT', 'POST'];
  else if (route.method === 'PUT') route.method = ['PUT', 'POST'];
}
