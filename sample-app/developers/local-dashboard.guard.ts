import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
} from '@nestjs/common';
import type { Request } from 'express';
import { DEMO_CONFIG, type DemoConfig } from '../demo-config.js';

/** What of a request says which page sent it. */
export interface DashboardRequest {
  method: string;
  host: string | undefined;
  origin: string | undefined;
}

/**
 * The Host headers the demo goes by: its loopback names, the address it listens on, and those the
 * user adds (a container's published port, say).
 */
export function dashboardHosts(
  config: Pick<DemoConfig, 'port' | 'receiverUrl' | 'extraDashboardHosts'>,
): ReadonlySet<string> {
  // A browser leaves out the default port (80 for http) from the Host header.
  const port = config.port === 80 ? '' : `:${config.port}`;
  const names = ['localhost', '127.0.0.1', '[::1]'].map((name) => `${name}${port}`);
  const own = new URL(config.receiverUrl).host;
  return new Set([...names, own, ...config.extraDashboardHosts].map((host) => host.toLowerCase()));
}

/**
 * Why the loginless dashboard refuses a request, or null. An unknown Host is DNS rebinding (a page
 * same-origin to the browser that could create a key and read it); a write with another page's Origin
 * is cross-site (browsers always send Origin on POST and DELETE). A write without Origin (curl) passes.
 */
export function dashboardRefusal(request: DashboardRequest, hosts: ReadonlySet<string>): string | null {
  const host = request.host?.toLowerCase();
  if (host === undefined || !hosts.has(host)) {
    return `The Developers page answers only at ${[...hosts].join(', ')}.`;
  }
  const reads = request.method === 'GET' || request.method === 'HEAD';
  if (!reads && request.origin !== undefined && request.origin.toLowerCase() !== `http://${host}`) {
    return 'The Developers page takes changes from its own page only.';
  }
  return null;
}

/** The dashboard's routes, for this machine's browser only (see dashboardRefusal). */
@Injectable()
export class LocalDashboardGuard implements CanActivate {
  private readonly hosts: ReadonlySet<string>;

  constructor(@Inject(DEMO_CONFIG) config: DemoConfig) {
    this.hosts = dashboardHosts(config);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    const refusal = dashboardRefusal(
      { method: request.method, host: request.headers.host, origin: request.headers.origin },
      this.hosts,
    );
    if (refusal !== null) throw new ForbiddenException(refusal);
    return true;
  }
}
