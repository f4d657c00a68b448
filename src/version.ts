declare const __SVC_VERSION__: string | undefined;

/** Set by the bundle (build.mjs); `dev` when the sources run directly (tests). */
export const VERSION: string = typeof __SVC_VERSION__ === 'string' ? __SVC_VERSION__ : 'dev';
export const USER_AGENT = `svc/${VERSION} node/${process.versions.node}`;
