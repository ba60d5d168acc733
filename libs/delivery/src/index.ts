export * from './signing';
export * from './headers';
export * from './payload';
export * from './network-rules';
export * from './http-client';
export * from './classify';
export * from './backoff';
export * from './templating';
