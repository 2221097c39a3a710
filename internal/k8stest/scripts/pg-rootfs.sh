#!/bin/bash
# pg-rootfs.sh ROOTFS PGVERSION: a minimal PostgreSQL rootfs from the host's Debian
# postgresql-PGVERSION files (ldd finds the libraries, dash is /bin/sh), with an entrypoint that
# runs initdb on first start (PGDATA on the pod's volume) and then postgres in the foreground.
# No registry or image builder is needed: oci.sh packs the directory.
set -euo pipefail
R=${1:?rootfs dir}; V=${2:?postgresql major version}
PGL=/usr/lib/postgresql/$V; PGB=$PGL/bin
rm -rf "$R"; mkdir -p "$R"/{bin,etc,tmp,var/run/postgresql,var/lib/postgresql,$PGB,$PGL/lib,usr/share/zoneinfo}
chmod 1777 "$R/tmp"
for b in postgres initdb pg_ctl pg_isready; do cp -a "$PGB/$b" "$R$PGB/"; done
cp -a "$PGL"/lib/*.so "$R$PGL/lib/"; rm -f "$R$PGL/lib/llvmjit.so"
mkdir -p "$R/usr/share/postgresql"; cp -a "/usr/share/postgresql/$V" "$R/usr/share/postgresql/"
cp -a /usr/share/zoneinfo/UTC /usr/share/zoneinfo/Etc "$R/usr/share/zoneinfo/"
cp /bin/dash "$R/bin/sh"
for f in "$R"/bin/* "$R$PGB"/* "$R$PGL"/lib/*.so; do ldd "$f" 2>/dev/null || true; done \
 | awk '/=> \//{print $3} /^\s*\/lib/{print $1}' | sort -u | while read -r l; do mkdir -p "$R$(dirname "$l")"; cp -L "$l" "$R$l"; done
mkdir -p "$R/lib64"; cp -L /lib64/ld-linux-x86-64.so.2 "$R/lib64/"
printf 'root:x:0:0:root:/root:/bin/sh\npostgres:x:999:999:PostgreSQL:/var/lib/postgresql:/bin/sh\n' > "$R/etc/passwd"
printf 'root:x:0:\npostgres:x:999:\n' > "$R/etc/group"
chown -R 999:999 "$R/var/run/postgresql" "$R/var/lib/postgresql"
cat > "$R/bin/pg-entrypoint" <<EOS
#!/bin/sh
# initdb on first start, then postgres in the foreground; arguments go to postgres (-c name=value)
set -e
# "postgres -c ..." as the official image takes it, or "-c ..." alone
[ "\${1:-}" = postgres ] && shift
: "\${PGDATA:=/var/lib/postgresql/data/pgdata}"
if [ ! -s "\$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "\$POSTGRES_PASSWORD" > /tmp/pwfile
  $PGB/initdb -D "\$PGDATA" -U postgres --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 --locale=C -E UTF8 >/tmp/initdb.log 2>&1 || { cat /tmp/initdb.log; exit 1; }
  : > /tmp/pwfile  # no rm in the image: empty it
  echo "host all all 0.0.0.0/0 scram-sha-256" >> "\$PGDATA/pg_hba.conf"
fi
exec $PGB/postgres -D "\$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/tmp "\$@"
EOS
chmod 755 "$R/bin/pg-entrypoint"
