#!/usr/bin/env node
import "../dist/src/server/main.js";
