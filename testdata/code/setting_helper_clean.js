// An editor's own preferences: settings named like zone settings, no zone, no API.
import { setSetting, getSettings } from "./prefs";

export function defaults(prefs) {
  setSetting(prefs, "minify", true);
  setSetting(prefs, "brotli", false);
  return getSettings(prefs, "mobile_redirect");
}
