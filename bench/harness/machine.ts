import { cpus, freemem, loadavg, release, totalmem, type as osType } from 'node:os';
import { MB } from './proc.js';

export interface MachineInfo {
  cores: number;
  cpu_model: string;
  memory_total_mb: number;
  memory_free_mb: number;
  os: string;
  node: string;
  /** 1, 5 and 15 minute load averages when the run started: a noisy neighbour shows here. */
  loadavg_at_start: number[];
}

export function describeMachine(): MachineInfo {
  const list = cpus();
  return {
    cores: list.length,
    cpu_model: list[0]?.model.trim() ?? 'unknown',
    memory_total_mb: Math.round(totalmem() / MB),
    memory_free_mb: Math.round(freemem() / MB),
    os: `${osType()} ${release()}`,
    node: process.version,
    loadavg_at_start: loadavg().map((x) => Math.round(x * 100) / 100),
  };
}
