export * from './config';
export * from './load-config';
export * from './codec-config';
export * from './temporal';
