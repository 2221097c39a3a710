#!/bin/bash
# oci.sh NAME ROOTFS OUT.tar ENTRYPOINT_JSON USER [ENV_JSON]
# Packs a directory into a one-layer OCI image archive that `ctr images import` accepts,
# so no registry, docker or buildah is needed. Owners are kept numerically.
set -euo pipefail
name=$1 root=$2 out=$3 ep=$4 user=$5 env=${6:-'["PATH=/usr/local/bin:/usr/bin:/bin"]'}
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
mkdir -p "$w/blobs/sha256"
tar -C "$root" --numeric-owner --sort=name --mtime=@0 -cf "$w/layer.tar" .
ld=$(sha256sum "$w/layer.tar" | cut -d' ' -f1); ls=$(stat -c %s "$w/layer.tar"); mv "$w/layer.tar" "$w/blobs/sha256/$ld"
printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":%s,"User":"%s","Env":%s},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' "$ep" "$user" "$env" "$ld" > "$w/config"
cd_=$(sha256sum "$w/config" | cut -d' ' -f1); cs=$(stat -c %s "$w/config"); mv "$w/config" "$w/blobs/sha256/$cd_"
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' "$cd_" "$cs" "$ld" "$ls" > "$w/manifest"
md=$(sha256sum "$w/manifest" | cut -d' ' -f1); ms=$(stat -c %s "$w/manifest"); mv "$w/manifest" "$w/blobs/sha256/$md"
printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' "$md" "$ms" "$name" "${name##*:}" > "$w/index.json"
printf '{"imageLayoutVersion":"1.0.0"}' > "$w/oci-layout"
tar -C "$w" -cf "$out" oci-layout index.json blobs
echo "$out: $name $(stat -c %s "$out") bytes"
