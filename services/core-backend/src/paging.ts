/** Which page of a list, as every list endpoint takes it (validated in `schemas/common.ts`). */
export interface Paging {
  page: number;
  limit: number;
}
