#!/usr/bin/env bash
# Starts a MariaDB server of its own on loopback (Debian's mariadb-server: mariadb-install-db + mariadbd), with its
# own data directory, a user kafka_eos/kafka_eos and a database kafka_eos, and prints the URL the tests read
# (KAFKA_EOS_MARIADB_URL) on its last line. Idempotent: a server already answering on the port is reused.
#   scripts/start-mariadb.sh [port] [data-dir]     (defaults: 3306, ~/.cache/kafka-eos-ci/mariadb-<port>)
set -euo pipefail
# mariadbd is in /usr/sbin, which a non-login root shell may not have on its PATH
export PATH="$PATH:/usr/sbin:/sbin"
port=${1:-3306}
dir=${2:-$HOME/.cache/kafka-eos-ci/mariadb-$port}
sock="$dir/mariadb.sock"
url="mysql://kafka_eos:kafka_eos@127.0.0.1:$port/kafka_eos"
ping() { mariadb-admin --protocol=socket --socket="$sock" -uroot ping >/dev/null 2>&1; }
if ! ping; then
  mkdir -p "$dir"
  if [ ! -d "$dir/data/mysql" ]; then
    mariadb-install-db --no-defaults --user="$(id -un)" --datadir="$dir/data" --auth-root-authentication-method=socket \
      --skip-test-db >"$dir/install.log" 2>&1
  fi
  # --no-defaults: nothing from /etc/mysql (Debian's server config binds its own socket and port)
  nohup mariadbd --no-defaults --user="$(id -un)" --datadir="$dir/data" --socket="$sock" --pid-file="$dir/mariadb.pid" \
    --bind-address=127.0.0.1 --port="$port" --skip-name-resolve --local-infile=1 --innodb-buffer-pool-size=256M \
    --innodb-flush-log-at-trx-commit=1 --max-connections=500 --log-error="$dir/error.log" >/dev/null 2>&1 &
  for _ in $(seq 1 60); do ping && break; sleep 0.5; done
  ping || { echo "MariaDB did not start; see $dir/error.log" >&2; tail -20 "$dir/error.log" >&2; exit 1; }
fi
mariadb --protocol=socket --socket="$sock" -uroot <<'SQL'
CREATE DATABASE IF NOT EXISTS kafka_eos;
CREATE USER IF NOT EXISTS 'kafka_eos'@'127.0.0.1' IDENTIFIED BY 'kafka_eos';
CREATE USER IF NOT EXISTS 'kafka_eos'@'localhost' IDENTIFIED BY 'kafka_eos';
GRANT ALL PRIVILEGES ON *.* TO 'kafka_eos'@'127.0.0.1' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO 'kafka_eos'@'localhost' WITH GRANT OPTION;
FLUSH PRIVILEGES;
SQL
echo "$url"
