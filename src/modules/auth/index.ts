export { createAuthStore } from './store.ts';
export { createAuthService, type AuthService } from './service.ts';
export { registerAuthRoutes } from './routes.ts';
export { createOidcLogin, OIDC_CALLBACK_PATH, type OidcLogin } from './oidc-login.ts';
export { registerOidcRoutes } from './oidc-routes.ts';
export type { AgentAccountResolver } from './agent-accounts.ts';
export { createPrincipalCache, type PrincipalCache } from './principal-cache.ts';
export { createOidcVerifier, type OidcVerifier } from './oidc.ts';
export { createLoginThrottle, type LoginThrottle, type LoginThrottleRule } from './login-throttle.ts';
