#!/usr/bin/env node
import '../dist/mock/main.js';
