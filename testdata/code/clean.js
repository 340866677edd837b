const express = require("express");

const app = express();
app.get("/settings", (req, res) => res.json({ filters: [] }));
app.listen(3000);
