// Filtering, expand/collapse-all and link targets for the grouped findings. Every group and
// finding is rendered by the server as <details>, so the page reads the same without this
// script (groups open and close by themselves); it only hides findings and opens groups.
(function () {
  "use strict";
  var root = document.getElementById("finding-groups");
  if (!root) { return; }
  var groups = Array.prototype.slice.call(root.querySelectorAll("details.group"));
  var items = Array.prototype.slice.call(root.querySelectorAll("li[data-severity]"));
  var controls = document.getElementById("findings-controls");
  var search = document.getElementById("filter-text");
  var sev = document.getElementById("filter-severity");
  var supp = document.getElementById("filter-suppressed");
  var shown = document.getElementById("findings-shown");

  // In a compact page a finding is listed under its rule: the rule's line is searched too
  // (read once per rule).
  function ruleText(li) {
    var row = li.parentElement && li.parentElement.closest("li.rule-row");
    if (!row) { return ""; }
    if (row.sunsetText === undefined) { row.sunsetText = row.querySelector("summary").textContent.toLowerCase(); }
    return row.sunsetText;
  }

  function apply() {
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    var n = 0;
    groups.forEach(function (g) {
      var label = (g.getAttribute("data-label") || "").toLowerCase();
      var visible = 0;
      Array.prototype.forEach.call(g.querySelectorAll("li[data-severity]"), function (li) {
        var text = label + " " + ruleText(li) + " " + li.textContent.toLowerCase();
        var ok = (!sev.value || li.getAttribute("data-severity") === sev.value) &&
          (supp.checked || li.getAttribute("data-suppressed") !== "true") &&
          words.every(function (w) { return text.indexOf(w) >= 0; });
        li.hidden = !ok;
        if (ok) { visible++; }
      });
      // A compact page lists findings by rule: a rule with none shown is hidden too.
      Array.prototype.forEach.call(g.querySelectorAll("li.rule-row"), function (row) {
        row.hidden = !row.querySelector("li[data-severity]:not([hidden])");
      });
      g.hidden = visible === 0;
      n += visible;
    });
    shown.value = n + " of " + items.length + " findings shown";
  }

  function setAll(open) {
    groups.forEach(function (g) { if (!g.hidden) { g.open = open; } });
  }

  // A link to a finding (from a plan step) opens the groups around it; Chromium does so by
  // itself for fragment navigation, other browsers may not.
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    for (; el; el = el.parentElement) {
      if (el.tagName === "DETAILS") { el.open = true; }
    }
  }

  [search, sev, supp].forEach(function (el) {
    el.addEventListener("input", apply);
    el.addEventListener("change", apply);
  });
  document.getElementById("expand-all").addEventListener("click", function () { setAll(true); });
  document.getElementById("collapse-all").addEventListener("click", function () { setAll(false); });
  window.addEventListener("hashchange", openTarget);
  // Printing prints what is open: a folded group or list is its one line on paper, as on
  // screen (opening every one made a 200-zone account 500 pages).
  controls.hidden = false;
  root.setAttribute("data-interactive", "true");
  apply();
  openTarget();
}());
