#!/bin/sh
# The same pipeline as the Makefile, as a shell script. Run it inside one outer run:
#
#   happy-session run --title release -- sh examples/run-pipeline/release.sh
#
# Each `happy-session run` below nests its step under the outer one; `set -e` stops at the first
# failing step, whose exit status the outer run passes on.
set -e
out=${OUT:-out}
happy-session run --title build -- sh -c "mkdir -p '$out' && echo 'console.log(\"hello\")' > '$out/app.js' && echo built $out/app.js"
happy-session run --title test -- sh -c "
  happy-session run --title unit -- node '$out/app.js'
  happy-session run --title lint -- node --check '$out/app.js'
"
echo "release: $out/app.js is ready"
