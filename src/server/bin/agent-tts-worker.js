#!/usr/bin/env node
import '../dist/entry/worker.js';
