#!/usr/bin/env node
// The command's entry as npm links it: committed (unlike dist/, which the build makes), so that
// `npm ci` links `agentbox-acp` into node_modules/.bin before the first build, as in CI.
import "../dist/cli.js";
