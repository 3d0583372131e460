// The admin's import job page: poll the job's status and show its progress; reload the page when
// the job has finished, so the result is shown. Without JavaScript the page has a refresh link.
(function () {
  "use strict";
  var root = document.querySelector(".import-job");
  if (!root || root.dataset.finished === "true") return;
  var bar = document.getElementById("job-progress");
  var label = document.getElementById("job-status-label");
  var text = document.getElementById("job-progress-text");
  var url = root.dataset.statusUrl;
  function poll() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (job) {
        if (!job) return;
        if (job.finished) { window.location.reload(); return; }
        if (bar) { bar.value = job.percent; bar.textContent = job.percent + " %"; }
        if (label) label.textContent = job.status_label;
        if (text) text.textContent = job.progress_text;
        window.setTimeout(poll, 1000);
      })
      .catch(function () { window.setTimeout(poll, 3000); });
  }
  window.setTimeout(poll, 1000);
})();
