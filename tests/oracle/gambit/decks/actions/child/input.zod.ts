import { z } from "npm:zod";

export default z.object({
  orderId: z.string().describe("The order id."),
  note: z.string().optional(),
});
