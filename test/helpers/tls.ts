/**
 * A self-signed certificate for 127.0.0.1 and localhost, made with Debian's openssl, for the tests of TLS listeners.
 * Without openssl the caller skips, except under CI=1, where CI provides it and its absence fails the suite.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const OPENSSL = ['/usr/bin/openssl', '/bin/openssl'].find((p) => existsSync(p));

/** True when a certificate can be made here. Under CI=1 a missing openssl throws instead. */
export function canMakeCertificates(): boolean {
  if (!OPENSSL && process.env.CI) throw new Error('openssl is missing: CI installs it (.ci/run)');
  return OPENSSL !== undefined;
}

/** A key and certificate (PEM) in a fresh directory, with the paths of both files; `remove()` deletes them. */
export function selfSignedCertificate(): { key: Buffer; cert: Buffer; keyFile: string; certFile: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-cert-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(OPENSSL!, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
  return { key: readFileSync(keyFile), cert: readFileSync(certFile), keyFile, certFile,
    remove: () => rmSync(dir, { recursive: true, force: true }) };
}
