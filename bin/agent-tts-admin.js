#!/usr/bin/env node
import "../dist/src/server/admin.js";
