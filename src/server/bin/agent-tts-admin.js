#!/usr/bin/env node
import '../dist/admin.js';
