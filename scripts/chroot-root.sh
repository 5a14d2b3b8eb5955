# Sourced by scripts/check-debian13.sh and scripts/check-arm64.sh: a Debian root of its own for a
# check, made once with debootstrap and reused, this checkout's HEAD copied into it, and /proc and
# /dev mounted for the build and the tests (unmounted when the script exits).

# root_prepare ROOT SUITE MIRROR SOURCE_DIR
root_prepare() {
  local root="$1" suite="$2" mirror="$3" source_dir="$4" m
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: run as root (debootstrap and chroot need it)" >&2
    exit 1
  fi
  if ! command -v debootstrap >/dev/null || ! command -v rsync >/dev/null \
    || ! command -v curl >/dev/null || ! command -v gpg >/dev/null; then
    step "installing debootstrap, rsync, curl and gpg (curl and gpg fetch Ubuntu's key)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap rsync curl gpg
  fi
  if [ ! -e "$root/etc/debian_version" ]; then
    step "debootstrap $suite into $root"
    local extra=() script=()
    case "$mirror" in
      *ubuntu*) root_ubuntu_keyring "$root.keyring.gpg" "$mirror" "$suite"
        # universe: Qt Charts, simdjson and the node exporter are there. Debian 12's debootstrap
        # has no script named for suites newer than itself; every Ubuntu suite uses gutsy's.
        extra=(--keyring="$root.keyring.gpg" --components=main,universe)
        [ -e "/usr/share/debootstrap/scripts/$suite" ] || script=(/usr/share/debootstrap/scripts/gutsy) ;;
    esac
    debootstrap --variant=minbase "${extra[@]}" "$suite" "$root" "$mirror" "${script[@]}"
  fi
  case "$mirror" in
    *ubuntu*) # An installed Ubuntu also has its updates and security pockets (debootstrap adds neither).
      grep -q -- "-updates" "$root/etc/apt/sources.list" \
        || printf "deb %s %s-updates main universe\ndeb %s %s-security main universe\n" \
          "$mirror" "$suite" "$mirror" "$suite" >> "$root/etc/apt/sources.list" ;;
  esac
  if [ -e "$root/etc/lsb-release" ]; then
    echo "$(. "$root/etc/lsb-release" && echo "$DISTRIB_DESCRIPTION") in $root"
  else
    echo "Debian $(cat "$root/etc/debian_version") in $root"
  fi

  # The checkout as committed (git archive: no build folders, no local junk). The last copy's
  # build folder stays, and files whose contents did not change keep their time stamps (git
  # archive stamps every file with the commit's time), so a re-run only rebuilds what changed.
  step "copying HEAD of $source_dir"
  local staging
  staging="$(mktemp -d)"
  git -C "$source_dir" archive --format=tar HEAD | tar -x -C "$staging"
  mkdir -p "$root/src/quantscope"
  if command -v rsync >/dev/null; then
    # No -t: a file whose contents are unchanged keeps its old time (rsync -a would stamp it with
    # this commit's time and so rebuild everything); one that changed is written now.
    rsync -rlpD --checksum --delete --exclude /build/ "$staging/" "$root/src/quantscope/"
  else
    find "$root/src/quantscope" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
    cp -a "$staging/." "$root/src/quantscope/"
  fi
  rm -rf "$staging"

  # /proc, /sys and /dev for the compiler, ninja and the tests (loopback sockets need nothing more: the
  # chroot shares this machine's network namespace).
  root_mounted=()
  trap root_unmount EXIT
  for m in proc sys dev dev/pts; do
    if ! mountpoint -q "$root/$m"; then
      case "$m" in
        proc) mount -t proc proc "$root/proc" ;;
        sys) mount --rbind /sys "$root/sys" ;; # the node exporter reads it
        *) mount --bind "/$m" "$root/$m" ;;
      esac
      root_mounted=("$root/$m" "${root_mounted[@]}")
    fi
  done
  cp /etc/resolv.conf "$root/etc/resolv.conf"
}

# root_ubuntu_keyring OUT MIRROR SUITE: Debian 12 does not package Ubuntu's archive key. It is taken
# from Ubuntu's own ubuntu-keyring package and trusted only if it is the key whose fingerprint is
# written here (the Ubuntu Archive Automatic Signing Key (2018), as Ubuntu publishes it), so
# debootstrap still verifies every Release file it downloads.
root_ubuntu_keyring() {
  local out="$1" mirror="$2" suite="$3" tmp deb
  local fingerprint=F6ECB3762474EDA9D21B7022871920D1991BC93C
  tmp="$(mktemp -d)"
  curl -fsS "$mirror/dists/$suite/main/binary-amd64/Packages.gz" -o "$tmp/Packages.gz"
  deb="$(gzip -dc "$tmp/Packages.gz" \
    | awk '/^Package: ubuntu-keyring$/ { f = 1 } f && /^Filename:/ && !d { print $2; d = 1 }')"
  curl -fsS "$mirror/$deb" -o "$tmp/keyring.deb"
  dpkg-deb -x "$tmp/keyring.deb" "$tmp/x"
  gpg --homedir "$tmp" --no-default-keyring --keyring "$tmp/x/usr/share/keyrings/ubuntu-archive-keyring.gpg" \
    --export "$fingerprint" > "$out" 2>/dev/null
  rm -rf "$tmp"
  if [ ! -s "$out" ]; then
    echo "error: Ubuntu's archive key $fingerprint not found in $mirror/$deb" >&2
    rm -f "$out"
    exit 1
  fi
}

root_unmount() {
  local m
  for m in "${root_mounted[@]}"; do umount -l "$m" 2>/dev/null || true; done
}
