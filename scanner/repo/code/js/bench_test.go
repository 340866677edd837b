package js

import (
	"fmt"
	"strings"
	"testing"
)

// benchUnit is one stretch of ordinary TypeScript, as a service module is written: doc
// comments, imports, an enum, an interface and a type alias, a class with typed async
// methods (templates, generics, a regular expression, a loop, calls with objects), a Pulumi
// resource.
const benchUnit = `/**
 * Firewall rules for zone %[1]d.
 *
 * Reads and writes the rules through the API client, a page at a time.
 */
import * as cloudflare from "@pulumi/cloudflare";
import { Client, type Options } from './client%[1]d';
import { logger } from "../logger";

export enum RuleAction%[1]d {
  Block = "block",
  Challenge = "challenge",
  Skip = "skip",
}

/** A rule as the API returns it. */
export interface Rule%[1]d<T extends object = {}> {
  /** The rule's identifier. */
  id: string;
  expression: string;
  action?: RuleAction%[1]d;
  description?: string;
  paused: boolean;
  meta: Record<string, Array<T>>;
}

export type RuleInput%[1]d = Omit<Rule%[1]d, 'id'> & { priority?: number };

const API_%[1]d = 'https://api.example.com/client/v4';
const MAX_PAGES = 100;

export class Service%[1]d extends Base<Options> implements Api {
  private readonly cache = new Map<string, Rule%[1]d[]>();

  constructor(private http: Client, private zoneId: string) {
    super();
  }

  /**
   * listRules reads every page of rules.
   * @param page the first page to read
   */
  async listRules(page = 1, perPage: number = 50): Promise<Rule%[1]d[]> {
    const url = ` + "`${API_%[1]d}/zones/${this.zoneId}/firewall/rules?page=${page}&per_page=${perPage}`" + `;
    const res = await this.http.get<{ result: Rule%[1]d[] }>(url, { headers: { 'Content-Type': 'application/json' } });
    if (!res || res.result.length === 0 && page > 1) {
      return [];
    }
    // Skip the rules whose ids are not hex.
    const clean = res.result.filter((r) => /^[a-f0-9]{32}$/i.test(r.id) && r.expression !== "");
    for (let i = 0; i < clean.length; i++) {
      if (clean[i].paused) {
        continue;
      }
      this.cache.set(clean[i].id, [clean[i]]);
    }
    return clean.map((r) => ({ ...r, expression: r.expression.replace(/\s+/g, " ") })) as Rule%[1]d[];
  }

  async create(rule: RuleInput%[1]d): Promise<void> {
    await this.http.post(API_%[1]d + "/zones/" + this.zoneId + "/filters", {
      method: 'POST',
      body: JSON.stringify([{ expression: rule.expression, paused: false }]),
    });
    const ratio = this.cache.size / 2 / (MAX_PAGES || 1);
    logger.info(util.format("created %%s in %%d ms", rule.description, Date.now() - ratio));
  }
}

export const ruleset%[1]d = new cloudflare.Ruleset("ruleset-%[1]d", {
  zoneId: config.require("zoneId"),
  kind: "zone",
  phase: "http_request_firewall_custom",
  rules: [{ action: "block", expression: "(ip.src in {10.0.0.%[1]d})", enabled: true }],
});

`

// benchSource returns about n bytes of TypeScript.
func benchSource(n int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, benchUnit, i)
	}
	return []byte(b.String())
}

func BenchmarkRead(b *testing.B) {
	src := benchSource(1 << 20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Read(src)
	}
}
