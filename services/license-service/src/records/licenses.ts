/** Licenses (seed 001 D): each belongs to one client; `status` false suspends it. */
import { z } from 'zod';
import { createTableRepository } from '../store/table-repository';
import { field } from './form-input';

export const licenseTable = createTableRepository({
  table: 'licenses',
  columns: [
    'license_name',
    'serial_number',
    'qty',
    'installed_in',
    'binded_in',
    'status',
    'activated_date',
    'expired_date',
    'module',
  ],
  searchable: ['license_name', 'serial_number', 'module', 'installed_in', 'binded_in'],
  sortable: ['license_name', 'serial_number', 'status', 'activated_date', 'expired_date', 'qty'],
  parentColumn: 'client_id',
});

export const licenseForm = z
  .object({
    license_name: field.required(),
    serial_number: field.optional(200),
    qty: field.int(1),
    installed_in: field.optional(200),
    binded_in: field.optional(200),
    status: field.checkbox(),
    activated_date: field.optionalDate(),
    expired_date: field.optionalDate(),
    module: field.optional(200),
  })
  .refine((v) => !v.activated_date || !v.expired_date || v.expired_date >= v.activated_date, {
    path: ['expired_date'],
    message: 'Must not be before the activation date',
  });
