import { z } from "npm:zod";

export default z.object({ ok: z.boolean() });
