import { portInUseError } from './port-in-use';

describe('portInUseError', () => {
  const listener = { what: 'The API', host: '127.0.0.1', port: 3000, env: 'PORT', key: 'http.port', off: false };

  it("should turn Node's EADDRINUSE into a sentence naming the port and its settings", () => {
    const err = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:3000'), {
      code: 'EADDRINUSE',
    });
    expect((portInUseError(err, listener) as Error).message).toBe(
      'The API cannot listen on 127.0.0.1:3000: the port is already in use. Stop what listens there, ' +
        'or move it with PORT=<another port> (http.port in SVC_CONFIG)',
    );
  });

  it("should recognise the Temporal SDK core's wording and say that 0 turns a metrics port off", () => {
    const err = new Error('Failed to start prometheus metrics exporter: Address already in use (os error 98)');
    const sdk = { ...listener, what: 'The metrics', port: 9465, env: 'METRICS_TEMPORAL_SDK_PORT', key: 'm', off: true };
    expect((portInUseError(err, sdk) as Error).message).toMatch(
      /METRICS_TEMPORAL_SDK_PORT=<another port> \(m in SVC_CONFIG; 0 turns it off\)$/,
    );
  });

  it('should return any other error as it is', () => {
    const err = Object.assign(new Error('permission denied'), { code: 'EACCES' });
    expect(portInUseError(err, listener)).toBe(err);
  });
});
