#!/usr/bin/env node
import '../dist/src/load/cli.js';
