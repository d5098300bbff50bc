#!/usr/bin/env node
import "../dist/src/server/worker-main.js";
