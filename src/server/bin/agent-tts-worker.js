#!/usr/bin/env node
import '../dist/worker-main.js';
