/**
 * `${NAME}` and `${NAME:-default}` in a `kafka-eos run` config, replaced by the environment's values
 * (as Docker Compose and the shells spell them), so that passwords need not sit in the file.
 *
 * Substitution runs on the parsed document, string by string (never on the file's text): a value can
 * never change the document's structure (a password holding `"`, `:` or a newline stays one string).
 * Values stay strings: a field that takes a number (`metrics.port`) cannot come from a variable.
 * `$${` is a literal `${`. Errors name the field and the variable, never a value.
 */
import { ConfigError } from '../../consumer/options';

const REFERENCE = /\$(\$?)\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A copy of `value` (a parsed JSON or YAML document) with every `${NAME}` / `${NAME:-default}` in its
 * strings replaced from `env`. `${NAME:-default}` takes `default` when NAME is unset or empty (the shell's rule).
 * @throws ConfigError naming the field when a variable without a default is unset, or a reference is malformed
 *   (`${}`, `${1X}`, an unclosed `${`).
 */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv = process.env, path: string[] = []): unknown {
  if (typeof value === 'string') return substituteString(value, env, path);
  if (Array.isArray(value)) return value.map((v, i) => substituteEnv(v, env, [...path, String(i)]));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteEnv(v, env, [...path, k])]));
  }
  return value;
}

function substituteString(text: string, env: NodeJS.ProcessEnv, path: string[]): string {
  const field = path.join('.') || '(config)';
  const out = text.replace(REFERENCE, (_all, escaped: string, inner: string) => {
    if (escaped) return `\${${inner}}`;
    const sep = inner.indexOf(':-');
    const name = sep < 0 ? inner : inner.slice(0, sep);
    if (!NAME.test(name)) {
      throw new ConfigError(field, `\${${name}}: not a variable name (letters, digits and _, not starting with a digit)`);
    }
    const set = env[name];
    if (sep >= 0) return set === undefined || set === '' ? inner.slice(sep + 2) : set;
    if (set === undefined)
      throw new ConfigError(field, `environment variable ${name} is not set (write \${${name}:-default} for a default)`);
    return set;
  });
  // What is left of a `${` after the replacement is a reference never closed (a value inserted above is not re-read).
  if (/(^|[^$])\$\{/.test(text.replace(REFERENCE, ''))) {
    throw new ConfigError(field, '"${" without its closing "}" (write $${ for a literal ${)');
  }
  return out;
}
