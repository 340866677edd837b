// Sorting and filtering for the findings table. Every row is rendered by the server, so the page
// reads the same without this script; it only hides rows and reorders them.
(function () {
  "use strict";
  var table = document.getElementById("findings-table");
  if (!table || !table.tBodies.length) { return; }
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var controls = document.getElementById("findings-controls");
  var search = document.getElementById("filter-text");
  var sev = document.getElementById("filter-severity");
  var group = document.getElementById("filter-group");
  var supp = document.getElementById("filter-suppressed");
  var shown = document.getElementById("findings-shown");

  function apply() {
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    var n = 0;
    rows.forEach(function (row) {
      var text = row.textContent.toLowerCase();
      var ok = (!sev.value || row.getAttribute("data-severity") === sev.value) &&
        (!group.value || row.getAttribute("data-group") === group.value) &&
        (supp.checked || row.getAttribute("data-suppressed") !== "true") &&
        words.every(function (w) { return text.indexOf(w) >= 0; });
      row.hidden = !ok;
      if (ok) { n++; }
    });
    shown.value = n + " of " + rows.length + " findings shown";
  }

  function key(row, col) {
    var cell = row.cells[col];
    var v = cell.getAttribute("data-sort");
    return v !== null ? v : cell.textContent.trim().toLowerCase();
  }

  function sortBy(th, col) {
    var asc = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var order = rows.map(function (row, i) { return { row: row, i: i, k: key(row, col) }; });
    order.sort(function (a, b) {
      var c = a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i;
      return asc ? c : -c;
    });
    order.forEach(function (o) { body.appendChild(o.row); });
  }

  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "sort";
    button.textContent = th.textContent;
    button.title = "Sort by " + th.textContent.toLowerCase();
    th.textContent = "";
    th.appendChild(button);
    button.addEventListener("click", function () { sortBy(th, col); });
  });
  [search, sev, group, supp].forEach(function (el) {
    el.addEventListener("input", apply);
    el.addEventListener("change", apply);
  });
  controls.hidden = false;
  table.setAttribute("data-interactive", "true");
  apply();
}());
