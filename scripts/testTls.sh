#!/usr/bin/env bash
# Switches TLS on in the local test servers (PostgreSQL 127.0.0.1:5432, MariaDB 127.0.0.1:3306) for
# test/e2e/tls.test.ts. Plain connections keep working as before: PostgreSQL's `host` lines still take
# them, and no MariaDB user but sluice_tls_cert requires TLS. Safe to run again: it changes only what is
# missing, and restarts MariaDB only when TLS is still off there (its certificate settings are read only
# at runtime). Run as root. The keys are test keys, for these local servers only.
set -euo pipefail

DIR="${SLUICE_TEST_TLS_DIR:-/var/lib/sluice-test-tls}"
PG="psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p 5432 -U postgres -d test"
MY="mysql --protocol=tcp -h 127.0.0.1 -P 3306 -u root"
MY_CNF=/etc/mysql/my.cnf
MY_TLS_CNF=/etc/mysql/sluice-test-tls.cnf

sign() { # name subject extensions: a key and a certificate signed by the test CA
  openssl req -new -newkey rsa:2048 -nodes -keyout "$DIR/$1-key.pem" -subj "$2" -out "$DIR/$1.csr" 2>/dev/null
  openssl x509 -req -in "$DIR/$1.csr" -CA "$DIR/ca.pem" -CAkey "$DIR/ca-key.pem" -CAcreateserial -days 3650 \
    -extfile <(printf '%s\n' "$3") -out "$DIR/$1.pem" 2>/dev/null
  rm -f "$DIR/$1.csr"
}

# 1. Certificates: a test CA, the servers' certificate (localhost and 127.0.0.1 only), a client
#    certificate for the role sluice_tls_cert, and an unrelated CA that must not be trusted.
if [ ! -s "$DIR/client.pem" ]; then
  echo "== test TLS certificates in $DIR"
  install -d -m 0755 "$DIR"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=Sluice test CA" \
    -keyout "$DIR/ca-key.pem" -out "$DIR/ca.pem" 2>/dev/null
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=Sluice other CA" \
    -keyout "$DIR/other-ca-key.pem" -out "$DIR/other-ca.pem" 2>/dev/null
  sign server "/CN=localhost" "subjectAltName=DNS:localhost,IP:127.0.0.1
extendedKeyUsage=serverAuth"
  sign client "/CN=sluice_tls_cert" "extendedKeyUsage=clientAuth"
  rm -f "$DIR/other-ca-key.pem"
fi
chmod 0600 "$DIR/ca-key.pem" "$DIR/client-key.pem"
chmod 0644 "$DIR/ca.pem" "$DIR/other-ca.pem" "$DIR/server.pem" "$DIR/client.pem"
# Each server wants its own key file, readable by it alone.
install -m 0600 -o postgres -g postgres "$DIR/server-key.pem" "$DIR/server-key-postgres.pem"
install -m 0600 -o mysql -g mysql "$DIR/server-key.pem" "$DIR/server-key-mysql.pem"

# 2. PostgreSQL: TLS on at runtime, and the role sluice_tls_cert admitted only with its certificate.
HBA="$($PG -Atc 'SHOW hba_file')"
if ! grep -q 'sluice_tls_cert' "$HBA"; then
  echo "== pg_hba.conf: certificate login for sluice_tls_cert"
  { printf '%s\n' \
      "hostssl test sluice_tls_cert 127.0.0.1/32 cert" \
      "host    all  sluice_tls_cert 127.0.0.1/32 reject"
    cat "$HBA"; } >"$HBA.new"
  chown --reference="$HBA" "$HBA.new"
  chmod --reference="$HBA" "$HBA.new"
  mv "$HBA.new" "$HBA"
fi
$PG <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sluice_tls_cert') THEN CREATE ROLE sluice_tls_cert LOGIN; END IF;
END \$\$;
ALTER SYSTEM SET ssl_cert_file = '$DIR/server.pem';
ALTER SYSTEM SET ssl_key_file = '$DIR/server-key-postgres.pem';
ALTER SYSTEM SET ssl_ca_file = '$DIR/ca.pem';
ALTER SYSTEM SET ssl = on;
SELECT pg_reload_conf();
SQL
sleep 1
[ "$($PG -Atc 'SHOW ssl')" = on ] || { echo "PostgreSQL did not switch TLS on (see its log)" >&2; exit 1; }

# 3. MariaDB: the certificate settings in a file my.cnf includes, read at start.
cat >"$MY_TLS_CNF.new" <<CNF
[mysqld]
ssl_ca = $DIR/ca.pem
ssl_cert = $DIR/server.pem
ssl_key = $DIR/server-key-mysql.pem
CNF
if ! cmp -s "$MY_TLS_CNF.new" "$MY_TLS_CNF" 2>/dev/null; then mv "$MY_TLS_CNF.new" "$MY_TLS_CNF"; else rm "$MY_TLS_CNF.new"; fi
grep -qxF "!include $MY_TLS_CNF" "$MY_CNF" || printf '\n!include %s\n' "$MY_TLS_CNF" >>"$MY_CNF"
if [ "$($MY -NBe "SELECT @@have_ssl")" != YES ]; then
  echo "== restarting MariaDB with TLS"
  mysqladmin --protocol=tcp -h 127.0.0.1 -P 3306 -u root shutdown
  for _ in $(seq 1 60); do [ -e /run/mysqld/mysqld.pid ] || break; sleep 0.5; done
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
  for _ in $(seq 1 60); do $MY -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.5; done
fi
[ "$($MY -NBe "SELECT @@have_ssl")" = YES ] || { echo "MariaDB did not switch TLS on (see /var/log/mysql/error.log)" >&2; exit 1; }
$MY <<SQL
CREATE USER IF NOT EXISTS 'sluice_tls_cert'@'127.0.0.1' REQUIRE SUBJECT '/CN=sluice_tls_cert';
GRANT SELECT ON test.* TO 'sluice_tls_cert'@'127.0.0.1';
SQL
echo "== TLS on: PostgreSQL and MariaDB, certificates in $DIR"
