#!/bin/sh
# {{NAME}} {{VERSION}}: {{DESCRIPTION}}
#
# A placeholder: replace this file with your prebuilt executable (keep the
# name bin/{{NAME}}, or change `entrypoint` in tool.yaml), then run
# `orla tool validate`. Until then it answers like a simple-mode tool: the
# arguments as one JSON object on stdin, the answer as JSON on stdout.
input="$(cat)"
[ -n "$input" ] || input='{}'
printf '{"tool":"%s","arguments":%s}\n' "{{NAME}}" "$input"
