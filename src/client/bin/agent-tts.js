#!/usr/bin/env node
import '../dist/client/cli/main.js';
