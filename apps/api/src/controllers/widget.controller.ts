import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Request, Response } from 'express';
import { Public } from '../http/api-key.guard';

const WIDGET_DIR = join(__dirname, '..', 'widget');

interface Asset { body: Buffer; etag: string }

function load(name: string): Asset {
  const body = readFileSync(join(WIDGET_DIR, name));
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** CSP for the example page: only its own inline script (by hash) and /widget.js may run. */
function exampleCsp(html: string): string {
  const hashes = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => `'sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
  return ["default-src 'none'", `script-src 'self' ${hashes.join(' ')}`, "connect-src 'self'", "style-src 'unsafe-inline'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"].join('; ');
}

/** The public feedback button script and an example page (no API key; files read once at start). */
@ApiExcludeController()
@Controller()
export class WidgetController {
  private readonly script = load('widget.js');
  private readonly example = load('example.html');
  private readonly csp = exampleCsp(this.example.body.toString('utf8'));

  @Get('widget.js')
  @Public()
  widget(@Req() req: Request, @Res() res: Response): void {
    res.setHeader('Cache-Control', 'public, max-age=600');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    this.send(req, res, this.script, 'application/javascript; charset=utf-8');
  }

  @Get('widget/example')
  @Public()
  examplePage(@Req() req: Request, @Res() res: Response): void {
    // The page carries a token in its URL: never leak it in a Referer, never cache it.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', this.csp);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.status(200).send(this.example.body);
  }

  private send(req: Request, res: Response, asset: Asset, type: string): void {
    res.setHeader('ETag', asset.etag);
    if (req.headers['if-none-match'] === asset.etag) {
      res.status(304).end();
      return;
    }
    res.setHeader('Content-Type', type);
    res.status(200).send(asset.body);
  }
}
