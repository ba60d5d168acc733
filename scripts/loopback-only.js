// Preloaded (`node --require`) into the API and worker of the contract fuzz (scripts/fuzz.sh):
// Schemathesis invents webhook URLs, and sink tests and triggered runs would send them. The fuzz
// runs in its own network namespace where only loopback exists; this guard is the second fence
// (and the only one where no namespace can be made): TCP connections and host name lookups may
// only go to loopback addresses. Anything else fails like an unreachable network.
'use strict';
const net = require('node:net');
const dns = require('node:dns');

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost)$/i;

function refused(host) {
  const err = new Error(`connect ENETUNREACH ${host} (loopback-only fuzz guard)`);
  err.code = 'ENETUNREACH';
  return err;
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  // net.connect() passes its normalized arguments as an array whose first element is the options.
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: args[1] };
  const host = options.path ? 'localhost' : String(options.host ?? 'localhost');
  if (!LOOPBACK.test(host.replace(/^\[|\]$/g, ''))) {
    process.nextTick(() => this.destroy(refused(host)));
    return this;
  }
  return connect.apply(this, args);
};

function guardLookup(original) {
  return function guardedLookup(hostname, ...rest) {
    const callback = rest[rest.length - 1];
    if (!LOOPBACK.test(String(hostname))) {
      process.nextTick(() => callback(Object.assign(refused(hostname), { code: 'ENOTFOUND' })));
      return {};
    }
    return original.call(this, hostname, ...rest);
  };
}
dns.lookup = guardLookup(dns.lookup);
const lookupAsync = dns.promises.lookup;
dns.promises.lookup = async (hostname, options) => {
  if (!LOOPBACK.test(String(hostname))) {
    throw Object.assign(refused(hostname), { code: 'ENOTFOUND' });
  }
  return lookupAsync(hostname, options);
};
for (const Resolver of [dns.Resolver, dns.promises.Resolver]) {
  for (const name of Object.getOwnPropertyNames(Resolver.prototype)) {
    if (name.startsWith('resolve') || name === 'reverse') {
      Resolver.prototype[name] = function refusedResolve(hostname) {
        const err = Object.assign(refused(hostname), { code: 'ENOTFOUND' });
        const callback = arguments[arguments.length - 1];
        if (typeof callback === 'function') {
          process.nextTick(() => callback(err));
          return undefined;
        }
        return Promise.reject(err);
      };
    }
  }
}
