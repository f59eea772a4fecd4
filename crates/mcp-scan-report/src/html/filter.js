"use strict";
(function () {
  var form = document.getElementById("filters");
  if (!form) { return; }
  var boxes = form.querySelectorAll("input[type=checkbox]");
  var findings = document.querySelectorAll("article.finding");
  var shown = document.getElementById("shown");
  function checked(name) {
    var out = [];
    for (var i = 0; i < boxes.length; i++) {
      if (boxes[i].name === name && boxes[i].checked) { out.push(boxes[i].value); }
    }
    return out;
  }
  function apply() {
    var sev = checked("severity"), wit = checked("witness"), n = 0;
    for (var i = 0; i < findings.length; i++) {
      var f = findings[i];
      var by = (f.getAttribute("data-analyzers") || "").split(" ");
      var ok = sev.indexOf(f.getAttribute("data-severity")) >= 0 &&
        by.some(function (a) { return wit.indexOf(a) >= 0; });
      f.hidden = !ok;
      if (ok) { n++; }
    }
    shown.textContent = n + " of " + findings.length + " findings shown";
    shown.setAttribute("data-shown", String(n));
  }
  // ?severity=high,critical&witness=static preselects the filters (shareable links).
  var q = new URLSearchParams(window.location.search);
  ["severity", "witness"].forEach(function (name) {
    var want = q.get(name);
    if (want === null) { return; }
    var list = want.toLowerCase().split(",");
    for (var i = 0; i < boxes.length; i++) {
      if (boxes[i].name === name) { boxes[i].checked = list.indexOf(boxes[i].value) >= 0; }
    }
  });
  form.addEventListener("change", apply);
  form.hidden = false;
  apply();
}());
