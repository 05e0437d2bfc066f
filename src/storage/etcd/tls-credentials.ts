/**
 * gRPC channel credentials for TLS to etcd that send a TLS ServerName (SNI) only for a
 * host name, as Go's crypto/tls client (and so etcd's clientv3) does: RFC 6066 §3 does not
 * permit IP literals as a ServerName, and Node warns (DEP0123) when one is set. grpc-js'
 * own `credentials.createSsl` sets the target's host as ServerName even when it is an IP
 * address (grpc/grpc-node#1919).
 *
 * The server certificate is checked against the target's host name, or, for an IP
 * target, against the address actually dialled (each endpoint of an `ipv4:a,b` target is
 * checked against its own address, as clientv3 checks each endpoint's host).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6066#section-3
 * @see https://nodejs.org/api/deprecations.html#DEP0123
 * @see https://pkg.go.dev/crypto/tls#Config (ServerName: sent in the handshake unless it is an IP address)
 */
import { isIP, type Socket } from 'node:net';
import { connect, createSecureContext, type SecureContext } from 'node:tls';
import * as grpc from '@grpc/grpc-js';

type SecureConnector = ReturnType<grpc.ChannelCredentials['_createSecureConnector']>;

/** The first host of a gRPC target (`ipv4:a:p,b:p` → a; `dns:name:p` → name; brackets of IPv6 removed). */
export function targetHost(target: grpc.experimental.GrpcUri): string {
  const first = target.path.split(',')[0] ?? '';
  const host = grpc.experimental.splitHostPort(first)?.host ?? first;
  return host.replace(/^\[|\]$/g, '');
}

/** TLS credentials (CA, optional client certificate) that never send an IP address as ServerName. */
export class EtcdTLSCredentials extends grpc.ChannelCredentials {
  private readonly context: SecureContext;

  /**
   * @param ca PEM of the CAs that sign the server certificates (null: the system's roots)
   * @param key PEM client key, with `cert`
   * @param cert PEM client certificate, with `key`
   */
  constructor(ca: Buffer | null, key: Buffer | null, cert: Buffer | null) {
    super();
    if (!key !== !cert) throw new Error('a client key needs its certificate and a certificate its key');
    this.context = createSecureContext({ ca: ca ?? undefined, key: key ?? undefined, cert: cert ?? undefined });
  }

  _isSecure(): boolean {
    return true;
  }

  _equals(other: grpc.ChannelCredentials): boolean {
    return other === this;
  }

  _createSecureConnector(target: grpc.experimental.GrpcUri, _options: grpc.ChannelOptions, callCredentials?: grpc.CallCredentials): SecureConnector {
    const host = targetHost(target);
    const ip = isIP(host) !== 0;
    const context = this.context;
    const calls = callCredentials ?? grpc.credentials.createEmpty();
    return {
      connect: (socket: Socket) =>
        new Promise((resolve, reject) => {
          const tlsSocket = connect(
            {
              socket,
              secureContext: context,
              ALPNProtocols: ['h2'],
              // the name the certificate is checked against; ServerName only for a host name
              host: ip ? (socket.remoteAddress ?? host) : host,
              ...(ip ? {} : { servername: host }),
            },
            () => resolve({ socket: tlsSocket, secure: true }),
          );
          tlsSocket.on('error', reject);
        }),
      waitForReady: () => Promise.resolve(),
      getCallCredentials: () => calls,
      destroy: () => undefined,
    };
  }
}
