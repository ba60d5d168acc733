/** What sink kinds may use of the API (`SinkServices`: its config and Temporal connection). */
export const SINK_SERVICES = Symbol('SINK_SERVICES');
