/* Swagger UI puts a link inside each operation's summary button (a focusable element inside
 * another, which keyboard and screen-reader users cannot reach as two): the link's address
 * is kept as text and the button, which opens the operation, stays the one control.
 */
(function () {
  "use strict";

  function fix(root) {
    root.querySelectorAll(".opblock-summary-control a[href]").forEach(function (link) {
      var span = document.createElement("span");
      span.className = link.className;
      span.innerHTML = link.innerHTML;
      link.replaceWith(span);
    });
  }

  var target = document.getElementById("swagger-ui");
  if (!target) {
    return;
  }
  new MutationObserver(function () { fix(target); }).observe(target, { childList: true, subtree: true });
  fix(target);
})();
