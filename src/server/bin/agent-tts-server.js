#!/usr/bin/env node
import '../dist/entry/server.js';
