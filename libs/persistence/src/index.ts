export * from './entities';
export * from './data-source';
export * from './repositories';
