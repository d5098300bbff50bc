#!/usr/bin/env node
import "../dist/src/sandbox/cli.js";
