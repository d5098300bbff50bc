#!/usr/bin/env node
import '../dist/entry/admin/main.js';
