#!/usr/bin/env bash
# Builds Sextant's container image from the distribution tarball without pulling any base image
# (for machines that reach Debian's package mirror but no container registry). The result is the
# image dist/docker/Dockerfile describes, on a minimal Debian root filesystem (mmdebstrap) with a
# jlink'ed Java 17 runtime, assembled and committed with buildah.
#
#   dist/docker/build-image.sh [dist/target/sextant-<version>.tar.gz]
#
# Needs root and Debian's buildah, mmdebstrap and a JDK 17 with jmods (openjdk-17-jdk-headless).
# Makes: image localhost/sextant:<version> (two layers: base = Debian + Java runtime, app = the
# tarball), and dist/target/sextant-image-<version>.tar (docker-archive, for `docker load`,
# `podman load` or a cluster's image import; SEXTANT_IMAGE_SAVE=0 skips it).
# Cached, so a second run only redoes the app layer: the Debian rootfs tarball in
# $SEXTANT_IMAGE_CACHE (default ~/.cache/sextant-image) and the base image, tagged
# sextant-base:<hash of its inputs>, in buildah's storage. SEXTANT_IMAGE_REFRESH=1 rebuilds the
# rootfs, e.g. to pick up Debian security updates.
set -euo pipefail
trap 'echo "build-image.sh: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

DOCKER_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DIST_DIR="$(dirname "$DOCKER_DIR")"
CACHE_DIR="${SEXTANT_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sextant-image}"
JDK="${SEXTANT_JDK:-/usr/lib/jvm/java-17-openjdk-amd64}"
JAVA_DIR=/opt/java                 # JAVA_HOME inside the image
APP_UID=10001                      # numeric, so runAsNonRoot can check it without /etc/passwd

die() { echo "build-image.sh: $*" >&2; exit 1; }
step() { printf '%s [%4ds] %s\n' "==>" "$SECONDS" "$*"; }

# --- inputs ------------------------------------------------------------------------------------
TARBALL="${1:-}"
if [[ -z "$TARBALL" ]]; then
  shopt -s nullglob
  candidates=("$DIST_DIR"/target/sextant-[0-9]*.tar.gz)
  shopt -u nullglob
  (( ${#candidates[@]} == 1 )) || die "expected one dist/target/sextant-<version>.tar.gz, found ${#candidates[@]}; pass the tarball"
  TARBALL="${candidates[0]}"
fi
[[ -f "$TARBALL" ]] || die "no tarball $TARBALL (./mvnw -B -DskipTests package builds it)"
VERSION="$(basename "$TARBALL" .tar.gz)"; VERSION="${VERSION#sextant-}"
IMAGE="localhost/sextant:$VERSION"
ARCHIVE="$(dirname "$TARBALL")/sextant-image-$VERSION.tar"

(( EUID == 0 )) || die "run as root (buildah mount and mmdebstrap's root mode need it)"
for tool in buildah mmdebstrap; do
  command -v "$tool" >/dev/null || die "$tool missing: apt-get install -y buildah mmdebstrap"
done
[[ -d "$JDK/jmods" ]] || die "$JDK has no jmods; set SEXTANT_JDK to a JDK 17 (apt-get install -y openjdk-17-jdk-headless)"
JDK_VERSION="$(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$JDK/release")"
[[ "$JDK_VERSION" == 17* ]] || die "$JDK is Java $JDK_VERSION; Sextant's image ships Java 17"

# The rootfs comes from the host's own Debian release: the jlink'ed runtime is built against the
# host's libraries, so the image must carry the same ones.
# shellcheck disable=SC1091
SUITE="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
[[ -n "$SUITE" ]] || die "cannot tell the Debian release from /etc/os-release"
# The host's Debian sources (not third-party ones, whose keys the rootfs lacks); no mirror is
# named here.
mapfile -t SOURCES < <(grep -lsE 'debian-archive-keyring|^deb .*/debian' \
  /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources || true)
(( ${#SOURCES[@]} > 0 )) || die "no Debian apt sources found under /etc/apt"

mkdir -p "$CACHE_DIR"
WORK="$(mktemp -d)"
CTR=""
cleanup() {
  if [[ -n "$CTR" ]]; then buildah rm "$CTR" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# --- 1. Debian root filesystem (cached) --------------------------------------------------------
# essential = Essential:yes packages only (bash, coreutils, dpkg; no apt, no perl thanks to the
# merged-usr hook instead of the usrmerge package); libstdc++6 and zlib1g are what the JVM's
# native libraries link to. Docs, man pages and translations are left out; copyright files stay.
# shellcheck disable=SC2054  # the commas are inside option values
MMDEBSTRAP_ARGS=(
  --variant=essential --include=libstdc++6,zlib1g
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*'
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/lintian/*'
)
ROOTFS_KEY="$(printf '%s\n' "$SUITE" "${MMDEBSTRAP_ARGS[@]}" | sha256sum | cut -c1-12)"
ROOTFS="$CACHE_DIR/rootfs-$SUITE-$ROOTFS_KEY.tar"
if [[ ! -f "$ROOTFS" || "${SEXTANT_IMAGE_REFRESH:-0}" == 1 ]]; then
  step "building the Debian $SUITE rootfs with mmdebstrap (about a minute)"
  mmdebstrap "${MMDEBSTRAP_ARGS[@]}" "$SUITE" "$WORK/rootfs.tar" "${SOURCES[@]}" \
    > "$WORK/mmdebstrap.log" 2>&1 || { tail -n 40 "$WORK/mmdebstrap.log" >&2; die "mmdebstrap failed"; }
  mv "$WORK/rootfs.tar" "$ROOTFS"   # only a finished rootfs enters the cache
else
  step "Debian rootfs from cache: $ROOTFS ($(date -r "$ROOTFS" '+%F %T'))"
fi

# --- 2. Java modules the jars need -------------------------------------------------------------
step "unpacking $TARBALL"
tar -C "$WORK" -xzf "$TARBALL"
[[ -x "$WORK/sextant/bin/sextant" ]] || die "$TARBALL has no sextant/bin/sextant"
# jdeps finds the modules the bytecode names; the extras are loaded by name at run time, which
# jdeps cannot see: TLS elliptic curves (Elasticsearch over HTTPS), com.sun.management (JVM
# metrics), Unsafe (Netty), JNDI's DNS provider (gRPC's name resolver), and jcmd/JFR for
# diagnosing a running container.
EXTRA_MODULES=jdk.crypto.ec,jdk.management,jdk.unsupported,jdk.naming.dns,jdk.jcmd,jdk.jfr,jdk.management.jfr
# jdeps takes a while over every jar, so its answer is cached per set of jars.
JARS_KEY="$(cat "$WORK"/sextant/lib/*.jar | sha256sum | cut -c1-16)"
MODULES_FILE="$CACHE_DIR/modules-$JARS_KEY.txt"
if [[ ! -f "$MODULES_FILE" ]]; then
  step "finding the Java modules with jdeps"
  # Its answer is the last line; warnings may come before it.
  "$JDK/bin/jdeps" --ignore-missing-deps --multi-release 17 --print-module-deps \
    "$WORK"/sextant/lib/*.jar 2>/dev/null | tail -n 1 > "$WORK/modules.txt"
  grep -q '^java\.base' "$WORK/modules.txt" || die "jdeps gave no module list"
  mv "$WORK/modules.txt" "$MODULES_FILE"
fi
MODULES="$(tr -d '[:space:]' < "$MODULES_FILE"),$EXTRA_MODULES"
MODULES="$(tr ',' '\n' <<<"$MODULES" | sort -u | paste -sd, -)"
step "Java modules: $MODULES"

# --- 3. base image: rootfs + Java runtime (cached in buildah's storage) ------------------------
# Keyed by its inputs and by this script, so an edited recipe rebuilds it.
BASE_KEY="$(printf '%s\n' "$ROOTFS" "$(stat -c %Y "$ROOTFS")" "$JDK" "$JDK_VERSION" "$MODULES" \
  "$(sha256sum < "${BASH_SOURCE[0]}")" | sha256sum | cut -c1-12)"
BASE="localhost/sextant-base:$BASE_KEY"
if buildah inspect --type image "$BASE" >/dev/null 2>&1; then
  step "base image from cache: $BASE"
else
  step "jlink: Java $JDK_VERSION runtime"
  # --generate-cds-archive: a class-data-sharing archive for a faster start, as JDK builds ship.
  "$JDK/bin/jlink" --add-modules "$MODULES" --output "$WORK/java" \
    --strip-debug --no-header-files --no-man-pages --generate-cds-archive
  # That archive only serves heaps under 32 GB (compressed oops); the other one is 11 MB unused.
  rm -f "$WORK/java/lib/server/classes_nocoops.jsa"
  step "assembling $BASE"
  CTR="$(buildah from --quiet scratch)"
  MNT="$(buildah mount "$CTR")"
  # Device nodes are the runtime's business (it mounts /dev), not the image's.
  tar -C "$MNT" --exclude='./dev/*' -xf "$ROOTFS"
  cp -a "$WORK/java" "$MNT$JAVA_DIR"
  # The user exists by name too, so `id` and the JVM's user.home make sense; no login, no home.
  echo "sextant:x:$APP_UID:$APP_UID:Sextant:/opt/sextant:/usr/sbin/nologin" >> "$MNT/etc/passwd"
  echo "sextant:x:$APP_UID:" >> "$MNT/etc/group"
  echo "sextant:!::0:99999:7:::" >> "$MNT/etc/shadow"
  buildah umount "$CTR" >/dev/null
  buildah config --created-by "mmdebstrap --variant=essential $SUITE + jlink Java $JDK_VERSION" "$CTR"
  buildah commit --quiet --rm "$CTR" "$BASE" >/dev/null
  CTR=""
  # Older bases lose their tag (their layers stay while an image still uses them).
  buildah images --format '{{.Name}}:{{.Tag}}' | grep '^localhost/sextant-base:' | grep -vx "$BASE" \
    | xargs -r buildah rmi >/dev/null 2>&1 || true
fi

# --- 4. app layer: the tarball, root-owned and read-only ---------------------------------------
step "adding the distribution as /opt/sextant"
OLD_ID="$(buildah inspect --type image --format '{{.FromImageID}}' "$IMAGE" 2>/dev/null || true)"
CTR="$(buildah from --quiet --pull=never "$BASE")"
MNT="$(buildah mount "$CTR")"
cp -a "$WORK/sextant" "$MNT/opt/sextant"
chown -R 0:0 "$MNT/opt/sextant"
# Nobody may write: directories 555, the launcher 555, everything else 444.
chmod -R a=rX "$MNT/opt/sextant"
SIZES="rootfs $(du -sh "$MNT" | cut -f1) = Java runtime $(du -sh "$MNT$JAVA_DIR" | cut -f1)"
SIZES+=" + /opt/sextant $(du -sh "$MNT/opt/sextant" | cut -f1) + Debian $(du -sh --exclude="$MNT/opt" "$MNT" | cut -f1)"
buildah umount "$CTR" >/dev/null

# The same contract as dist/docker/Dockerfile, plus JAVA_HOME and PATH for the jlink'ed runtime
# (the chart's init container calls `keytool` by name) and a UTF-8 locale that needs no package.
buildah config \
  --user "$APP_UID:$APP_UID" --workingdir /opt/sextant \
  --entrypoint '["/opt/sextant/bin/sextant"]' --cmd '' \
  --env JAVA_HOME="$JAVA_DIR" \
  --env PATH="$JAVA_DIR/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --env LANG=C.UTF-8 \
  --env JAVA_HEAP_OPTS="-XX:InitialRAMPercentage=25 -XX:MaxRAMPercentage=60" \
  --env SEXTANT_CONFIG=/opt/sextant/config/application.yml \
  --port 11800/tcp --port 12800/tcp --stop-signal SIGTERM \
  --label org.opencontainers.image.title=sextant \
  --label org.opencontainers.image.version="$VERSION" \
  --label io.sextant.base="$BASE" \
  --created-by "$(basename "$TARBALL") as /opt/sextant" \
  "$CTR"
buildah commit --quiet --rm "$CTR" "$IMAGE" >/dev/null
CTR=""
NEW_ID="$(buildah inspect --type image --format '{{.FromImageID}}' "$IMAGE")"
# Idempotent: the image this run replaced goes, unless something still uses it.
if [[ -n "$OLD_ID" && "$OLD_ID" != "$NEW_ID" ]]; then
  buildah rmi "$OLD_ID" >/dev/null 2>&1 || true
fi

if [[ "${SEXTANT_IMAGE_SAVE:-1}" == 1 ]]; then
  step "saving $ARCHIVE"
  rm -f "$ARCHIVE"
  buildah push --quiet "$IMAGE" "docker-archive:$ARCHIVE:$IMAGE" >/dev/null
fi

# --- report ------------------------------------------------------------------------------------
step "built $IMAGE in ${SECONDS}s"
buildah images --format '{{.Name}}:{{.Tag}}  {{.ID}}  {{.Size}}' "$IMAGE"
echo "uncompressed: $SIZES"
if [[ -f "$ARCHIVE" ]]; then
  echo "archive: $ARCHIVE ($(du -h "$ARCHIVE" | cut -f1))"
fi
