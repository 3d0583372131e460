/* The offering explorer: its filters start folded on a phone (the offerings come first) and
 * open on a wide screen, where they sit beside the results. Without JavaScript the "Filters"
 * button opens them on any screen.
 */
(function () {
  "use strict";

  function init() {
    var filters = document.querySelector("[data-filters]");
    if (filters && window.matchMedia("(min-width: 901px)").matches) {
      filters.open = true;
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
